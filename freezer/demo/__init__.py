"""The demo: a sample code repository and a scratch registry built from the examples."""
