"""Schemas compiled to Python (see freezer.compile_schemas). Generated; do not edit."""
