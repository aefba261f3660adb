// The run browser's only script (the CSP allows no inline one). On the server it submits the question
// filters when a menu changes; in a static bundle, where no server filters, it filters, sorts and pages
// the rendered rows itself, keeping that state in the URL's hash so a link still names the view.
(function () {
  "use strict";
  var KEYS = ["type", "verdict", "stage", "q"];

  function bundleList(table) {
    var form = document.querySelector("form.filters");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var size = parseInt(table.getAttribute("data-page-size"), 10) || 50;
    var matched = document.querySelector("p.matched");
    var pager = document.querySelector("nav.pager");

    function state() { return new URLSearchParams(location.hash.slice(1)); }
    function go(s) { location.hash = s.toString(); }

    function apply() {
      var s = state();
      KEYS.forEach(function (k) { if (form.elements[k]) { form.elements[k].value = s.get(k) || ""; } });
      var q = (s.get("q") || "").toLowerCase();
      var found = rows.filter(function (r) {
        return KEYS.slice(0, 3).every(function (k) { return !s.get(k) || r.getAttribute("data-" + k) === s.get(k); }) &&
          (!q || r.getAttribute("data-text").indexOf(q) >= 0);
      });
      var key = s.get("sort") || "id";
      var sign = s.get("desc") === "1" ? -1 : 1;
      found.sort(function (a, b) {
        var x = a.getAttribute("data-" + key) + "\u0000" + a.getAttribute("data-id");
        var y = b.getAttribute("data-" + key) + "\u0000" + b.getAttribute("data-id");
        return (x < y ? -1 : x > y ? 1 : 0) * sign;
      });
      var pages = Math.max(1, Math.ceil(found.length / size));
      var page = Math.min(Math.max(1, parseInt(s.get("page"), 10) || 1), pages);
      rows.forEach(function (r) { r.hidden = true; });
      found.slice((page - 1) * size, page * size).forEach(function (r) { body.appendChild(r); r.hidden = false; });
      matched.textContent = found.length + " of " + rows.length + " questions" + (pages > 1 ? " · page " + page + " of " + pages : "");
      pager.textContent = "";
      [["← previous", page - 1], ["next →", page + 1]].forEach(function (link) {
        if (link[1] < 1 || link[1] > pages) { return; }
        var a = document.createElement("a");
        var next = state();
        next.set("page", String(link[1]));
        a.href = "#" + next.toString();
        a.textContent = link[0];
        pager.appendChild(a);
      });
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var s = state();
      KEYS.forEach(function (k) { if (form.elements[k] && form.elements[k].value) { s.set(k, form.elements[k].value); } else { s.delete(k); } });
      s.delete("page");
      go(s);
    });
    table.querySelectorAll("a[data-sort]").forEach(function (a) {
      a.addEventListener("click", function (event) {
        event.preventDefault();
        var s = state();
        var key = a.getAttribute("data-sort");
        if ((s.get("sort") || "id") === key && s.get("desc") !== "1") { s.set("desc", "1"); } else { s.delete("desc"); }
        s.set("sort", key);
        s.delete("page");
        go(s);
      });
    });
    window.addEventListener("hashchange", apply);
    apply();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var table = document.querySelector("table.questions[data-bundle]");
    if (table) { bundleList(table); }
    document.querySelectorAll("form.filters select").forEach(function (select) {
      select.addEventListener("change", function () { select.form.requestSubmit(); });
    });
  });
}());
