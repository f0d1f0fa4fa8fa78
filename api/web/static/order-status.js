// Live order status, a progressive enhancement of the portal's order history: while an order is
// open (queued or running) the page's status cells are refreshed in place from the portal's own
// JSON (same session, same listOrders as the page), and each change is announced through the
// page's status region (role="status", polite). Without JavaScript the page works as before: a
// reload shows the same statuses. Served from /static/ under the pages' CSP (script-src 'self').
(function () {
  'use strict';
  var table = document.querySelector('table[data-status-url]');
  var live = document.querySelector('[data-live="orders"]');
  if (!table || !live || !window.fetch) return;
  var url = table.getAttribute('data-status-url');
  var EVERY_MS = 3000;
  var MAX_FAILURES = 5;
  var failures = 0;

  function cellOf(id) {
    var row = table.querySelector('tr[data-order-id="' + String(Number(id)) + '"]');
    return row && row.querySelector('[data-status]');
  }

  function openShown(orders) {
    return orders.some(function (o) {
      return o.open && cellOf(o.id);
    });
  }

  function apply(orders) {
    var said = [];
    orders.forEach(function (o) {
      var cell = cellOf(o.id);
      if (!cell || cell.getAttribute('data-status') === o.status) return;
      cell.setAttribute('data-status', o.status);
      cell.textContent = o.label;
      said.push(o.message);
    });
    if (said.length) live.textContent = said.join(' ');
  }

  function poll() {
    var options = { headers: { accept: 'application/json' }, credentials: 'same-origin' };
    if (window.AbortSignal && AbortSignal.timeout) options.signal = AbortSignal.timeout(10000);
    fetch(url, options)
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      })
      .then(function (body) {
        failures = 0;
        apply(body.orders);
        // Stops once every order shown is done or failed.
        if (openShown(body.orders)) setTimeout(poll, EVERY_MS);
      })
      .catch(function () {
        // Signed out, offline or a server error: try a few times more slowly, then leave the page as it is.
        failures += 1;
        if (failures < MAX_FAILURES) setTimeout(poll, EVERY_MS * Math.pow(2, failures));
      });
  }

  setTimeout(poll, EVERY_MS);
})();
