"""question_gen package."""
