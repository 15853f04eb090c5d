// Live regions of the page (elements with data-live and hx-trigger="every 2s, live") poll only while the
// tab is visible, and catch up at once when it shows again. Loaded from /static: the page runs no inline script.
document.addEventListener("htmx:beforeRequest", function (event) {
  if (document.hidden && event.detail.elt.hasAttribute("data-live")) {
    event.preventDefault();
  }
});

document.addEventListener("visibilitychange", function () {
  if (document.hidden) {
    return;
  }
  document.querySelectorAll("[data-live]").forEach(function (element) {
    htmx.trigger(element, "live");
  });
});

// «Новый пакет»'s editor: «Проверить» (and a refused «Поставить в очередь») answers only the errors, each put
// beside its command out of band; the errors of the check before are cleared first, and the fields the new ones
// name are marked. Without JavaScript the form answers the whole page with the same marks.
document.addEventListener("htmx:beforeRequest", function (event) {
  if (!event.detail.elt.hasAttribute("data-checks-editor")) {
    return;
  }
  document.querySelectorAll("#editor .errors").forEach(function (box) {
    box.textContent = "";
    box.removeAttribute("data-params");
  });
  document.querySelectorAll("#editor .has-error").forEach(function (element) {
    element.classList.remove("has-error");
  });
  var summary = document.getElementById("editor-summary-area");
  if (summary) {
    summary.textContent = "";
  }
});

document.addEventListener("htmx:afterRequest", function (event) {
  if (!event.detail.elt.hasAttribute("data-checks-editor")) {
    return;
  }
  document.querySelectorAll("#editor .errors[data-params]").forEach(function (box) {
    if (!box.children.length) {
      return;
    }
    var command = box.closest(".command-edit");
    if (command) {
      command.classList.add("has-error");
    }
    box.getAttribute("data-params").split(" ").forEach(function (name) {
      var field = name && document.getElementById(name.replace(/\./g, "-") + "-field");
      if (field) {
        field.classList.add("has-error");
      }
    });
  });
});
