// The board's sortable tables (the CSP allows no inline script): clicking a column's head sorts that table's rows
// by the cell's data-v value, numerically where the head says data-sort="num" (empty values last), again to reverse.
(function () {
  "use strict";

  function sortBy(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-sort") === "num";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    function value(row) { return row.cells[index].getAttribute("data-v") || ""; }
    rows.sort(function (a, b) {
      var x = value(a), y = value(b);
      if (x === "" || y === "") { return (x === "") - (y === ""); }
      var order = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    table.querySelectorAll("th[data-sort]").forEach(function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table[data-sortable]").forEach(function (table) {
      table.querySelectorAll("th[data-sort]").forEach(function (th) {
        th.tabIndex = 0;
        th.addEventListener("click", function () { sortBy(table, th); });
        th.addEventListener("keydown", function (event) { if (event.key === "Enter") { sortBy(table, th); } });
      });
    });
  });
}());
