"""The in-browser playground: ``mediagen-nb lite build`` (JupyterLite + Pyodide, static).

Build tooling only: nothing in the runtime layers imports it, and it needs the ``[lite]``
extra (jupyterlite-core, the Pyodide kernel) and the project's checkout.
"""

from mediagen_nb._lite._site import Site, build_site, default_cache

__all__ = ["Site", "build_site", "default_cache"]
