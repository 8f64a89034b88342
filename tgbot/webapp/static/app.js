// The Mini App: one live screen of a game, drawn from GET app/api/view.
// Every word comes from the view (the server renders it in the reader's language); names
// and texts are set with textContent only, never parsed as HTML.
"use strict";
(function () {
  var tg = (window.Telegram && window.Telegram.WebApp) || null;
  var initData = (tg && tg.initData) || "";
  var query = new URLSearchParams(location.search);
  var game = (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || query.get("game") || "";
  var auth = { Authorization: "tma " + initData };

  var view = null; // the last view drawn
  var loading = false; // a view request in flight
  var again = false; // a revision came while loading: load once more
  var sending = false; // a decision in flight: its buttons stay disabled
  var stream = null; // the EventSource
  var retryMs = 1000; // the next reconnect's wait, doubled up to 30 s
  var skewMs = 0; // the server's clock minus ours, when they differ by more than a second
  var clock = { deadline: null, total: 1 };
  var full = false; // the whole log is open (Telegram's Back button closes it)
  var words = null; // the page's words before any view (GET app/api/words)
  var picking = null; // the turn's action whose targets are shown (its index in choices)

  function $(id) {
    return document.getElementById(id);
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function put(parent, children) {
    parent.replaceChildren.apply(parent, children.filter(Boolean));
  }
  function api(path) {
    return new URL("app/api/" + path, location.href).toString();
  }
  function token(name) {
    return String(name || "").toLowerCase().replace(/[^a-z0-9_-]/g, "");
  }
  function requestId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function haptic(kind) {
    try {
      if (tg && tg.HapticFeedback) tg.HapticFeedback.notificationOccurred(kind);
    } catch (e) { /* an old client without haptics */ }
  }
  function problem(text) {
    var p = $("problem");
    p.textContent = text || "";
    p.hidden = !text;
  }
  async function reason(response) {
    try {
      var body = await response.json();
      if (body && body.error) return String(body.error);
    } catch (e) { /* not JSON */ }
    return response.status + " " + response.statusText;
  }
  function language() {
    var user = tg && tg.initDataUnsafe && tg.initDataUnsafe.user;
    return (user && user.language_code) || (navigator.language || "");
  }
  async function texts() {
    // The view's words; before any view, the words of the user's Telegram language.
    if (view) return view.texts;
    if (!words) {
      try {
        var response = await fetch(api("words?lang=" + encodeURIComponent(language())), {
          cache: "no-store",
        });
        if (response.ok) words = await response.json();
      } catch (e) { /* offline: the reason as it is */ }
      if (words) document.documentElement.lang = words.lang;
    }
    return words ? words.texts : null;
  }
  async function explain(code) {
    // An API error reason (or "offline") in the reader's words; a refusal's text as it is.
    var t = await texts();
    return (t && t.errors && t.errors[code]) || code;
  }
  function learnClock(response) {
    var date = Date.parse(response.headers.get("Date") || "");
    if (isNaN(date)) return;
    var skew = date + 500 - Date.now(); // Date has whole seconds: take the middle
    skewMs = Math.abs(skew) > 1500 ? skew : 0;
  }

  async function load() {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      do {
        again = false;
        // Without a game id (the menu button) the view is of the user's current game.
        var response = await fetch(api(game ? "view?game=" + encodeURIComponent(game) : "view"), {
          headers: auth,
          cache: "no-store",
        });
        if (response.status === 429) {
          setTimeout(load, 2000); // counted like chat presses: ask again a little later
          break;
        }
        if (!response.ok) {
          problem(await explain(await reason(response)));
          break;
        }
        learnClock(response);
        var next = await response.json();
        problem("");
        game = game || next.game;
        if (!view || next.revision >= view.revision || next.game !== view.game) draw(next);
      } while (again);
    } catch (e) {
      if (!view) problem(await explain("offline"));
    } finally {
      loading = false;
      $("app").setAttribute("aria-busy", "false");
    }
  }

  function reconnect() {
    // Reconnect ourselves, so that `after` is the last revision seen, not the first.
    setTimeout(function () {
      if (document.hidden) return; // listened to again once in sight
      load();
      listen();
    }, retryMs);
    retryMs = Math.min(retryMs * 2, 30000);
  }
  async function listen() {
    if (stream) stream.close();
    stream = null;
    // The stream's address carries a single-use ticket, never the initData (addresses end
    // up in logs); a ticket is asked for with the initData in a header.
    var ticket = null;
    try {
      var response = await fetch(api("ticket?game=" + encodeURIComponent(game)), {
        method: "POST",
        headers: auth,
        cache: "no-store",
      });
      if (response.status === 401) {
        problem(await explain(await reason(response))); // expired: only reopening helps
        return;
      }
      if (response.ok) ticket = (await response.json()).ticket;
    } catch (e) { /* offline: try again */ }
    if (!ticket) {
      reconnect();
      return;
    }
    var after = view ? view.revision : 0;
    stream = new EventSource(
      api("events?ticket=" + encodeURIComponent(ticket) + "&after=" + after)
    );
    stream.addEventListener("revision", function (event) {
      try {
        // The same revision comes again when the record changed without a step (a
        // deadline starting at delivery): every event is worth a read.
        var data = JSON.parse(event.data);
        if (!view || data.revision >= view.revision) load();
      } catch (e) { /* a malformed event: the next one will do */ }
    });
    stream.onopen = function () {
      retryMs = 1000;
    };
    stream.onerror = function () {
      // The stream ended (its lifetime, the initData's expiry, the server stopping) or
      // broke: a ticket is single-use, so ask for a new one.
      stream.close();
      stream = null;
      reconnect();
    };
  }

  async function decide(code, button) {
    if (sending || !view) return;
    sending = true;
    button.classList.add("sending");
    enable(false);
    refusal("");
    var body = { game: view.game, revision: view.revision, decision: code, request_id: requestId() };
    var error = null;
    // A request lost on the way is sent again with the same id: applied at most once.
    for (var attempt = 0; attempt < 2; attempt++) {
      try {
        var response = await fetch(api("decide"), {
          method: "POST",
          headers: Object.assign({ "Content-Type": "application/json" }, auth),
          body: JSON.stringify(body),
        });
        var answer = null;
        try {
          answer = await response.json();
        } catch (e) { /* not JSON */ }
        if (!answer || !answer.ok) error = (answer && answer.error) || view.texts.refused;
        else error = null;
        break;
      } catch (e) {
        error = "offline";
        await new Promise(function (done) { setTimeout(done, 1000); });
      }
    }
    if (error) {
      haptic("error");
      refusal(await explain(error));
    }
    // The buttons stay disabled until the view after the decision is drawn.
    await load();
    sending = false;
    button.classList.remove("sending");
    enable(true);
  }
  function enable(on) {
    document.querySelectorAll("#app button.decision").forEach(function (b) {
      b.disabled = !on;
    });
  }
  function refusal(text) {
    var p = $("refusal");
    p.textContent = text || "";
    p.hidden = !text;
  }

  function seconds(n) {
    var unit = (view && view.texts.seconds) || "";
    return unit.indexOf("{seconds}") >= 0 ? unit.replace("{seconds}", n) : n + " " + unit;
  }
  function tick() {
    var box = $("clock");
    if (clock.deadline === null) {
      box.hidden = true;
      return;
    }
    var left = Math.max(0, clock.deadline - (Date.now() + skewMs));
    box.hidden = false;
    $("fill").style.width = Math.min(100, (100 * left) / clock.total).toFixed(1) + "%";
    box.classList.toggle("late", left < 10000);
    $("left").textContent = seconds(Math.ceil(left / 1000));
  }
  function setClock(deadline) {
    if (deadline !== clock.deadline) {
      var left = deadline === null ? 1 : deadline - (Date.now() + skewMs);
      clock = { deadline: deadline, total: Math.max(left, 1000) };
    }
    tick();
  }

  function draw(next) {
    var before = view;
    if (!before || before.revision !== next.revision || before.game !== next.game) picking = null;
    view = next;
    var t = next.texts;
    document.documentElement.lang = next.lang;
    $("app").dataset.revision = next.revision; // which state is drawn (the tests wait on it)
    document.title = next.title;
    $("title").textContent = next.title;
    $("app").dataset.phase = next.phase; // a code (turn, response, over...), not words
    drawOver(next, t);
    drawAct(next, t);
    drawHand(next, t);
    drawTable(next, t);
    drawLines($("claims"), t.claims, next.claims, null);
    drawLines($("log"), t.log, next.log, 6);
    // Your turn (or your answer) has come: the phone says so.
    if (before && next.header.mine && !before.header.mine) haptic("warning");
  }

  function drawOver(v, t) {
    var box = $("over");
    box.hidden = !v.over;
    if (!v.over) return;
    // Play again and Replay are decisions of the page ("again", "replay"), as the chat's
    // buttons under the final message are.
    var row = el("div", "decisions");
    [["again", t.play_again], ["replay", t.replay]].forEach(function (pair) {
      if (pair[1]) row.append(button(pair[0], pair[1]));
    });
    put(box, [el("h2", "winner", v.over.winner), el("p", "pre", v.over.text), row]);
  }

  function button(code, label) {
    var b = el("button", "decision", label);
    b.type = "button";
    b.dataset.code = code;
    b.disabled = sending;
    b.addEventListener("click", function () {
      decide(code, b);
    });
    return b;
  }

  function holds(coins, faceDown) {
    var row = el("span", "holds");
    row.append(el("span", "coins", "🪙 " + coins));
    for (var i = 0; i < faceDown; i++) row.append(el("span", "back", ""));
    return row;
  }

  function targetButton(target) {
    // A target as the chat's picker shows it: the name, their coins and face-down cards.
    var b = button(target.code, null);
    b.classList.add("target");
    var name = el("span", "name", target.name);
    if (target.side_label) name.append(" ", el("span", "side s-" + token(target.side), target.side_label));
    b.append(name, holds(target.coins, target.face_down));
    return b;
  }

  function choiceButtons(v, t) {
    // Action first, then target, as the chat asks: an action with targets opens its list.
    var forced = v.choices.length === 1 && v.choices[0].targets;
    var open = forced ? 0 : picking;
    if (open !== null && v.choices[open] && v.choices[open].targets) {
      var choice = v.choices[open];
      var list = choice.targets.map(targetButton);
      if (!forced) {
        var back = el("button", "goback", t.back);
        back.type = "button";
        back.addEventListener("click", function () {
          picking = null;
          drawAct(view, view.texts);
        });
        list.push(back);
      }
      return { question: forced ? v.question : choice.question, buttons: list };
    }
    var buttons = v.choices.map(function (c, i) {
      if (!c.targets) return button(c.code, c.label);
      var b = el("button", "decision pick", c.label);
      b.type = "button";
      b.disabled = sending;
      b.setAttribute("aria-haspopup", "true");
      b.addEventListener("click", function () {
        picking = i;
        drawAct(view, view.texts);
        var first = document.querySelector("#decisions button");
        if (first) first.focus();
      });
      return b;
    });
    return { question: v.question, buttons: buttons, actions: v.phase === "turn" };
  }

  function drawAct(v, t) {
    var header = $("header");
    header.textContent = v.header.text;
    header.classList.toggle("mine", v.header.mine);
    $("act").dataset.mine = String(v.header.mine);
    put(
      $("recent"),
      v.recent.map(function (line) {
        return el("li", null, line);
      })
    );
    $("recent").hidden = v.recent.length === 0 || !!v.over;
    $("recent").setAttribute("aria-label", t.recent);
    // The claim being answered stands out, unless it is the last line just above.
    $("claim").textContent = v.claim || "";
    $("claim").hidden = !v.claim || (!$("recent").hidden && v.recent[v.recent.length - 1] === v.claim);
    // The header names whoever alone is awaited; a list when several are (and, on your
    // own decision, the others asked with you).
    var waiting = $("waiting");
    var names = v.waiting_for;
    waiting.hidden = !!v.over || names.length === 0 || (!v.header.mine && names.length < 2);
    put(
      waiting,
      [el("span", "label", t.waiting)].concat(
        names.map(function (name) {
          return el("span", "chip", name);
        })
      )
    );
    setClock(v.over ? null : v.deadline_ms);
    var shown = choiceButtons(v, t);
    $("question").textContent = shown.question || "";
    $("question").hidden = !shown.question || shown.buttons.length === 0;
    put($("decisions"), shown.buttons);
    // A turn's actions two to a row, as the chat lays them out: the hand stays in sight.
    $("decisions").classList.toggle("grid", !!shown.actions && shown.buttons.length > 3);
  }

  function card(c) {
    var box = el("article", "card c-" + token(c.character));
    box.append(el("h3", null, c.name), el("p", "does", c.does));
    if (c.blocks) box.append(el("p", "blocks", c.blocks));
    return box;
  }

  function drawHand(v, t) {
    var me = v.me;
    var parts = [];
    if (!me.seated) {
      parts.push(el("p", "note", t.spectator));
    } else {
      parts.push(el("h2", null, t.your_cards));
      var status = el("p", "status");
      if (me.coins !== null) status.append(el("span", "coins", "🪙 " + me.coins));
      if (me.side_label) status.append(el("span", "side s-" + token(me.side), me.side_label));
      parts.push(status);
      if (me.out) parts.push(el("p", "note out", t.out));
      var cards = el("div", "cards");
      me.cards.forEach(function (c) {
        cards.append(card(c));
      });
      if (me.cards.length) parts.push(cards);
    }
    put($("hand"), parts);
  }

  function seat(s, t) {
    var li = el("li", "seat");
    li.classList.toggle("turn", s.turn);
    li.classList.toggle("me", s.me);
    li.classList.toggle("out", s.out);
    var head = el("div", "who");
    head.append(el("span", "name", s.name));
    if (s.side_label) head.append(el("span", "side s-" + token(s.side), s.side_label));
    var row = holds(s.coins, s.face_down);
    s.face_up.forEach(function (name) {
      row.append(el("span", "up", name));
    });
    li.append(head, row);
    if (s.turn) li.setAttribute("aria-current", "true");
    return li;
  }

  function drawTable(v, t) {
    var head = el("div", "tablehead");
    head.append(el("h2", null, t.table));
    var pool = el("p", "pool");
    if (v.reserve !== null) pool.append(el("span", "reserve", "🏦 " + v.reserve));
    pool.append(el("span", "deck", "🂠 " + v.deck));
    head.append(pool);
    var list = el("ol", "seats");
    v.seats.forEach(function (s) {
      list.append(seat(s, t));
    });
    put($("table"), [head, list]);
  }

  function drawLines(box, title, lines, tail) {
    box.hidden = lines.length === 0;
    var shown = tail && !full ? lines.slice(-tail) : lines;
    var head = el("h2");
    if (tail && lines.length > tail) {
      var more = el("button", "more", title + " (" + lines.length + ")");
      more.type = "button";
      more.setAttribute("aria-expanded", String(full));
      more.addEventListener("click", function () {
        openFull(!full);
      });
      head.append(more);
    } else {
      head.textContent = title;
    }
    var list = el("ol");
    shown.forEach(function (line) {
      list.append(el("li", null, line));
    });
    put(box, [head, list]);
    if (tail) box.classList.toggle("full", full);
  }

  function openFull(on) {
    full = on;
    if (tg && tg.BackButton) {
      if (on) tg.BackButton.show();
      else tg.BackButton.hide();
    }
    if (view) drawLines($("log"), view.texts.log, view.log, 6);
    if (on) $("log").scrollTop = $("log").scrollHeight;
  }

  function theme() {
    document.documentElement.dataset.scheme = (tg && tg.colorScheme) || "light";
  }

  if (tg) {
    tg.ready();
    tg.expand();
    if (tg.setHeaderColor) tg.setHeaderColor("secondary_bg_color");
    if (tg.setBackgroundColor) tg.setBackgroundColor("secondary_bg_color");
    theme();
    tg.onEvent("themeChanged", theme);
    if (tg.BackButton) tg.BackButton.onClick(function () { openFull(false); });
  }
  setInterval(tick, 250);
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      // Out of sight: the bot asks in the private chat instead, at once (it holds a
      // prompt for a page only while the page's stream is open).
      if (stream) stream.close();
      stream = null;
      return;
    }
    load();
    if (game && !stream) listen();
  });
  load().then(function () {
    if (game) listen();
  });
})();
