"""whitebox package."""
