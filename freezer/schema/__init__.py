"""JSON Schema validation: freezer's own schemas (compiled) and a suite's vetted own schema."""
