// A button that copies its `text` to the browser clipboard (hand-written ES module, no CDN).
// The kernel is told with a {"event": "copied"} message; where the clipboard API is not
// available (plain http, old browsers) the text is selected in a box for Ctrl+C instead.
function render({ model, el }) {
  const button = document.createElement("button");
  button.className = "mediagen-copy jupyter-button";
  const box = document.createElement("input");
  box.readOnly = true;
  box.className = "mediagen-copy-text";
  box.style.display = "none";
  const label = () => {
    button.textContent = model.get("label");
    button.title = model.get("text");
    box.value = model.get("text");
  };
  button.addEventListener("click", async () => {
    const text = model.get("text");
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "copied";
      setTimeout(label, 1200);
    } catch (_err) {
      box.style.display = "";
      box.select();
    }
    model.send({ event: "copied" });
  });
  model.on("change:text", label);
  model.on("change:label", label);
  label();
  el.append(button, box);
  return () => {
    model.off("change:text", label);
    model.off("change:label", label);
  };
}

export default { render };
