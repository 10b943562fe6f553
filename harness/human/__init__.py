"""People in the loop: manual entry for bots without an API, answer sheets, and review sessions."""
