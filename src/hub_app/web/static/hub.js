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
