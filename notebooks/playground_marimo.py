# The mediagen_nb playground for marimo: every Studio panel in tabs.
#   marimo run notebooks/playground_marimo.py     (an app)
#   marimo edit notebooks/playground_marimo.py    (the notebook)
# No MEDIAGEN_API_KEY? It runs on the built-in emulator (demo mode).
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="mediagen_nb playground")


@app.cell
def _():
    import marimo as mo

    import mediagen_nb as mg

    return mg, mo


@app.cell
def _(mo):
    mo.md(
        """
        # mediagen_nb playground

        Chat, images, videos, reference assets and the history of everything made here, one
        tab each. Without `MEDIAGEN_API_KEY` everything runs on a **built-in emulator** of the
        service (demo mode): no key, no cost, pictures and videos made on this machine.

        Three prompts to try:

        1. **Images**: *a red fox curled up in fresh snow, morning light*
        2. **Videos**: *a paper boat drifting down a rainy street*
        3. **Chat**: *Explain in three sentences why the sea is salty.*
        """
    )


@app.cell
def _(mg, mo):
    # One Studio holds the shared session and wires the panels together (a History row
    # reopens its request in its panel); marimo shows each panel, an anywidget, on its own.
    # The Studio's own tabs are ipywidgets, which marimo does not draw: choosing a marimo
    # tab selects the same Studio tab, so History and Assets refresh as they do in Jupyter.
    studio = mg.Studio()
    panels = {
        "Chat": studio.chat,
        "Images": studio.images,
        "Videos": studio.videos,
        "Assets": studio.assets,
        "History": studio.history,
    }
    titles = list(panels)

    def _select(title: str) -> None:
        studio.tabs.selected_index = titles.index(title)

    tabs = mo.ui.tabs(
        {title: mo.ui.anywidget(panel) for title, panel in panels.items()},
        on_change=_select,
    )
    tabs
    return studio, tabs


if __name__ == "__main__":
    app.run()
