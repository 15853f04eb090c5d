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

// «Новый пакет»: a value picked from the mirror (a status, a sprint) goes into its field, which stays free text.
// Caught on the way down, before htmx reads the form for the change it posts.
document.addEventListener("change", function (event) {
  var pick = event.target;
  if (!pick.classList || !pick.classList.contains("mirror-pick") || !pick.value) {
    return;
  }
  var field = document.getElementById(pick.getAttribute("data-fills"));
  if (field) {
    field.value = pick.value;
  }
  pick.value = "";
}, true);

// The file picker of an attachment: the file goes to POST /files on this origin (the session's cookie, its CSRF
// token in a header), then its sha256 fills «Файл», its name «Имя вложения» when empty, and the picker shows the
// name and size. The form then changes as if typed (htmx updates the JSON view); the chosen file is not sent again.
function csrfToken() {
  var field = document.querySelector("#editor input[name=_csrf_token]");
  return field ? field.value : "";
}

function uploadPicked(input) {
  var file = input.files && input.files[0];
  var shown = document.getElementById(input.getAttribute("data-shown"));
  if (!file) {
    return;
  }
  if (shown) {
    shown.textContent = "загружается " + file.name + "…";
  }
  fetch("/files?filename=" + encodeURIComponent(file.name), {
    method: "POST",
    body: file,
    credentials: "same-origin",
    headers: {"Content-Type": "application/octet-stream", "HX-Request": "true", "X-CSRF-Token": csrfToken()}
  }).then(function (response) {
    return response.json().then(function (answer) {
      return {ok: response.ok, answer: answer};
    });
  }).then(function (result) {
    input.value = "";
    if (!result.ok) {
      if (shown) {
        shown.textContent = result.answer.detail || "файл не загружен";
      }
      return;
    }
    var sha = document.getElementById(input.getAttribute("data-sha"));
    var name = document.getElementById(input.getAttribute("data-filename"));
    if (sha) {
      sha.value = result.answer.sha256;
    }
    if (name && !name.value.trim()) {
      name.value = file.name;
    }
    if (shown) {
      shown.textContent = result.answer.shown;
    }
    (sha || input).dispatchEvent(new Event("change", {bubbles: true}));
  }).catch(function () {
    input.value = "";
    if (shown) {
      shown.textContent = "файл не загружен: хаб не ответил";
    }
  });
}

document.addEventListener("change", function (event) {
  var input = event.target;
  if (input.classList && input.classList.contains("file-upload")) {
    event.stopPropagation();  // not a change of the draft yet: the upload's answer makes one
    uploadPicked(input);
  }
}, true);
