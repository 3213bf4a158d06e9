// Live signal tail: appends each server-sent signal as text (never as HTML).
(function () {
  var list = document.getElementById("signals");
  var state = document.getElementById("tail-state");
  if (!list) { return; }
  var source = new EventSource(list.getAttribute("data-stream"));
  source.onopen = function () { state.textContent = "connected"; };
  source.onerror = function () { state.textContent = "reconnecting…"; };
  source.addEventListener("signal", function (event) {
    var signal = JSON.parse(event.data);
    var item = document.createElement("li");
    item.className = "signal";
    var when = new Date().toISOString().replace("T", " ").replace("Z", " UTC");
    item.textContent = when + "  " + signal.kind + "  from " + signal.origin_node_id + "  " + JSON.stringify(signal.payload);
    list.appendChild(item);
  });
})();
