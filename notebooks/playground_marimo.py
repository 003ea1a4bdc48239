# The mediagen_nb playground for marimo: the whole Studio, every panel in its tabs.
#   .venv/bin/marimo run notebooks/playground_marimo.py     (an app, after README command 1
#   and .venv/bin/pip install -e ".[marimo]")
#   .venv/bin/marimo edit notebooks/playground_marimo.py    (the notebook)
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
    # The whole Studio, one anywidget: its tabs draw every panel inside (anywidget's widget
    # composition), as in Jupyter; History "open in form" and re-attached tasks work alike.
    studio = mg.Studio()
    mo.ui.anywidget(studio)
    return (studio,)


if __name__ == "__main__":
    app.run()
