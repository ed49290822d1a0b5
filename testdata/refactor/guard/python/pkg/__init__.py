"""A package whose pyright runs in strict mode (as requests' does)."""
