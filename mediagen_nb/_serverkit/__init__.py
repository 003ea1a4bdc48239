"""What every server of this package serves with: the emulator's and the classroom gateway's.

Error bodies (``errors``), bounded request bodies (``body``), the URL layout (``urls``),
browser-safe media headers (``media_types``) and the uvicorn runner (``runner``, imported
only where a socket server starts). It knows nothing of tasks, codes or the catalog.
"""
