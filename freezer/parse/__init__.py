"""Reading YAML and JSON into plain data with positions, refusing what readers disagree on."""

from freezer.parse.lazyreader import import_yaml

# Before any module of this package imports yaml: the pure-Python reader's pattern, which libyaml's
# parser never uses, is compiled when first used, not at every start of a hook (see lazyreader).
import_yaml()
