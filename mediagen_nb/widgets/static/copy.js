// A button that copies its `text` to the browser clipboard (hand-written ES module, no CDN).
// The kernel is told with a {"event": "copied"} message; where the clipboard API is not
// available (plain http, old browsers, no permission) the text is selected in a box for Ctrl+C.
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
    model.send({ event: "copied" }); // first: a clipboard promise may never settle
    // A permission prompt can leave writeText pending forever (headless, iframes): give up
    // after a second and offer the selected text instead.
    const timeout = new Promise((_resolve, reject) => setTimeout(() => reject(new Error("timeout")), 1000));
    try {
      await Promise.race([navigator.clipboard.writeText(text), timeout]);
      button.textContent = "copied";
      setTimeout(label, 1200);
    } catch (_err) {
      box.style.display = "";
      box.select();
    }
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
