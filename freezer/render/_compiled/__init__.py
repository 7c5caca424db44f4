"""freezer's shipped templates compiled to Python by Jinja2 (``python -m freezer.render.compile_templates``)."""
