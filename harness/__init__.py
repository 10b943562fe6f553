"""harness: black-box social-bias testing for chatbots, in English and Chinese."""

__version__ = "0.1.0"
