"""Sphinx settings of the documentation site: ``make docs`` builds it offline into ``docs/_build/html``.

The pages are Markdown (MyST), the API reference comes from the docstrings (autodoc, Google style
through napoleon), and the notebooks are shown with their stored outputs (myst-nb, never executed
here: the tests execute them). The build is strict: ``-W -n`` turns every warning, a broken link or
a reference to a name of the kit that does not exist, into an error.
"""

from __future__ import annotations

import smear_env

project = "smear-rl"
author = "the smear-rl developers"
copyright = "2026, the smear-rl developers"
release = version = smear_env.__version__

extensions = [
    "myst_nb",  # Markdown pages and stored notebooks (it brings myst_parser)
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
root_doc = "index"

# MyST: anchors for headings down to level 3, so pages can link to each other's sections.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
suppress_warnings = ["myst.header"]  # the pages' first heading is their title; lower levels may skip

# Notebooks: shown with the outputs stored in them; nothing is executed and no widget script is loaded.
nb_execution_mode = "off"
nb_ipywidgets_js: dict[str, dict[str, str]] = {}

# API reference: signatures with their types, the docstrings' Args / Returns / Raises sections.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_mock_imports = ["ray"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Strict (-n): a reference to a name of the kit must resolve. Names of other libraries (numpy,
# torch, gymnasium, the standard library) have no inventory offline, so they are not checked.
nitpick_ignore_regex = [
    ("py:.*", r"^(?!(smear_env|agents|smear_nets|train)\b).*"),
    ("py:class", r"train\.config\.[CT]"),  # type variables
    ("py:class", r"smear_env\.rules\.Annotated"),  # typing.Annotated, named by Sphinx after the type it wraps (Flat[Rules])
]

html_theme = "furo"
html_title = f"smear-rl {release}"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": True}
autodoc_inherit_docstrings = False  # a method documents itself, not with its base class's (gymnasium's) text


def setup(app):  # noqa: ANN001, ANN201 - Sphinx's hook
    """Napoleon for functions and classes only: a config field's one-line docstring (``"where the networks run:
    auto, cpu ..."``) is prose, which napoleon would split at its first colon into a type and a text."""
    from sphinx.ext import napoleon

    listeners = app.events.listeners["autodoc-process-docstring"]
    for listener in [entry for entry in listeners if entry.handler is napoleon._process_docstring]:
        app.disconnect(listener.id)

    def process(app, what, name, obj, options, lines):  # noqa: ANN001, ANN202
        if what not in ("attribute", "data", "property"):
            napoleon._process_docstring(app, what, name, obj, options, lines)

    app.connect("autodoc-process-docstring", process)
