"""Reading YAML and JSON into plain data with positions, refusing what readers disagree on."""
