// Progressive niceties only: every page works without this file.
// The harness filter applies as soon as it changes, so its button can go.
document.documentElement.classList.add("js");
for (const select of document.querySelectorAll("form.filters select")) {
  select.addEventListener("change", () => select.form.submit());
}
