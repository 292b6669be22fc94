// The smear-rl table: the server keeps the game; this page sends the seat's moves and draws the
// seat's view that comes back. Nothing here knows another seat's cards until a hand is over.
"use strict";

let tableId = null;
let state = null;
let busy = false;
let heard = []; // the log lines already announced to a screen reader

const CARD_NAME = /^(?:discard )?([2-9TJQKA][CDHS])$/; // a card action: played, or discarded

function relative(seat) {
  return ["bottom", "left", "top", "right"][(seat - state.seat + 4) % 4];
}

// A seat from the person's chair: "you", "your partner", "your left-hand opponent", "your right-hand opponent".
function who(seat) {
  return ["you", "your left-hand opponent", "your partner", "your right-hand opponent"][(seat - state.seat + 4) % 4];
}
const Who = (seat) => who(seat).replace(/^./, (c) => c.toUpperCase());
// The same, short, for a caption under a card: "you", "partner", "left", "right".
const short = (seat) => ["you", "left", "partner", "right"][(seat - state.seat + 4) % 4];

// A seat's label at the table: "You", "Partner · Heuristic", "Left · PIMC search" (the spec in its tooltip).
function seatName(seat) {
  if (seat === state.seat) return "You";
  const spec = state.agents[String(seat)];
  return `${short(seat).replace(/^./, (c) => c.toUpperCase())} \u00b7 ${playerName(spec)}`;
}

function backs(n) {
  const wrap = el("span", { class: "backs", "aria-label": `${n} cards` });
  for (let i = 0; i < n; i++) wrap.append(el("span", { class: "card back" }));
  return wrap;
}

function draw() {
  const v = state.view;
  $("setup").hidden = true;
  $("side").hidden = false;
  $("records").href = `/api/tables/${tableId}/records`;
  const over = state.game_over;
  const summary = !!state.summary;
  $("table").hidden = over || summary; // a finished hand or game replaces the table (the next hand's cards stay out of sight)
  drawSummary();
  drawOver();
  if (!over && !summary) drawTable(v);
  if (state.failed) {
    $("prompt").textContent = "This table has stopped.";
    showError(state.failed); // why, and what to do: abandon it
  }
  $("players").replaceChildren(
    ...[0, 1, 2, 3].map((seat) =>
      el("li", { text: `${Who(seat)}, ${COMPASS[seat]}: ${seat === state.seat ? "a person" : `${playerName(state.agents[String(seat)])} (${state.agents[String(seat)]})`}` }),
    ),
  );
  drawLog(); // last: the layout above settles the log's width, and so its height
  announce();
  keepFocus();
}

function drawTable(v) {
  const me = state.seat & 1;
  const trump = v.trump ? `trump ${SUIT[v.trump]} ${SUIT_NAME[v.trump]}` : "no trump yet";
  const bid = v.bidder === null ? "no bid yet" : `${Who(v.bidder)} bid ${v.bid}`;
  const board = $("scoreboard");
  board.replaceChildren(
    el(
      "div",
      {},
      el("span", { class: "score", text: `Us ${signed(v.scores[me])} \u2013 Them ${signed(v.scores[1 - me])}` }),
      el("span", { text: `to ${v.rules.target_score}` }),
      el("span", { text: `hand ${v.hand_index + 1}, ${v.dealer === state.seat ? "you deal" : who(v.dealer) + " deals"}` }),
      el("span", { id: "contract", text: `${bid}; ${trump}` }),
    ),
  );
  if (state.tally) {
    const t = state.tally;
    const side = (team) => (team === null ? "nobody yet" : team === me ? "us" : "them");
    board.append(
      el("div", {
        id: "tally",
        text:
          `Tricks us ${t.tricks[me]}, them ${t.tricks[1 - me]} \u00b7 High: ${side(t.high)} \u00b7 Low: ${side(t.low)} ` +
          `\u00b7 Jack: ${side(t.jack)} \u00b7 Game-count us ${t.game_count[me]}, them ${t.game_count[1 - me]}`,
      }),
    );
  }
  for (let seat = 0; seat < 4; seat++) {
    const bids = v.bids.filter(([s]) => s === seat).map(([, b]) => (b === 0 ? "pass" : `bid ${b}`));
    const label = el("div", {
      class: "who" + (v.to_act === seat ? " to-act" : ""),
      text: seatName(seat) + (seat === v.dealer ? " \u00b7 dealer" : "") + (bids.length ? ` \u00b7 ${bids.join(", ")}` : ""),
    });
    if (seat !== state.seat) label.title = `${COMPASS[seat]}: ${state.agents[String(seat)]}`; // the spec, for who wants it
    const box = $(`seat-${relative(seat)}`);
    box.replaceChildren(label);
    if (seat !== state.seat) box.append(backs(v.hand_sizes[seat]));
    if (seat === v.bidder && v.num_discards && seat !== state.seat) box.append(el("div", { class: "note", text: `discarded ${v.num_discards} face down` }));
  }
  $("trick").replaceChildren(
    ...v.trick.map(([seat, card]) =>
      el("figure", { class: `slot ${relative(seat)}` }, cardEl(card, { seat }), el("figcaption", { text: short(seat) })),
    ),
  );
  drawLastTrick(v);
  // The legal card actions (a card to play, or to discard) are the cards themselves.
  const byCard = new Map();
  for (const a of v.legal_actions) {
    const m = CARD_NAME.exec(a.name);
    if (m) byCard.set(m[1], a.id);
  }
  const choosing = byCard.size > 0;
  const hand = $("hand");
  hand.replaceChildren(
    ...v.hand.map((card) => {
      const id = byCard.get(card);
      if (id === undefined) return cardEl(card, { dim: choosing }); // plain while bidding or declaring trump
      const node = cardEl(card, { onClick: () => send(id) });
      node.dataset.action = id;
      node.setAttribute("aria-label", `${v.phase === "discard" ? "Discard" : "Play"} the ${node.getAttribute("aria-label")}`);
      return node;
    }),
  );
  if (v.picked_up && v.picked_up.length) {
    hand.append(el("div", { class: "note", text: `You picked up ${faces(v.picked_up)}` + (v.discards && v.discards.length ? `; you discarded ${faces(v.discards)}` : "") }));
  }
  const moves = $("moves");
  moves.replaceChildren(
    ...v.legal_actions
      .filter((a) => !CARD_NAME.test(a.name))
      .map((a) => {
        const b = el("button", { type: "button", class: "move", "data-action": a.id, text: actionText(a.name) });
        b.addEventListener("click", () => send(a.id));
        return b;
      }),
  );
  const left = v.phase === "discard" ? v.hand.length - 6 : 0;
  const prompts = {
    bid: "Your bid",
    trump: "Declare trump",
    discard: `Discard: choose a card to put away (${left} to go)`,
    play: "Your card: choose one",
  };
  $("prompt").textContent = v.legal_actions.length ? prompts[v.phase] : "Waiting for the other seats\u2026";
  $("tricks-list").replaceChildren(
    ...v.tricks.map((t, i) =>
      el(
        "div",
        { class: "done-trick" },
        `Trick ${i + 1}: `,
        ...t.plays.map(([seat, card]) => Object.assign(cardEl(card, { seat, small: true }), { title: who(seat) })),
        ` won by ${who(t.winner)}`,
      ),
    ),
  );
}

// The last finished trick stays in view while the next one is played: each card under its seat's name, the
// winner's card marked.
function drawLastTrick(v) {
  const box = $("last-trick");
  const last = v.tricks[v.tricks.length - 1];
  box.hidden = !last;
  box.replaceChildren();
  if (!last) return;
  box.replaceChildren(
    el("div", { class: "note", text: `Last trick: ${who(last.winner)} took it` }),
    el(
      "div",
      { class: "last-plays" },
      ...last.plays.map(([seat, card]) =>
        el(
          "figure",
          { class: "played" + (seat === last.winner ? " won" : "") },
          cardEl(card, { seat, small: true, mark: seat === last.winner ? "winner" : "" }),
          el("figcaption", { text: short(seat) + (seat === last.winner ? " \u2605" : "") }),
        ),
      ),
    ),
  );
}

function drawLog() {
  const log = $("log");
  log.replaceChildren(...state.log.map((line) => el("li", { text: line })));
  const box = $("log-box");
  box.scrollTop = box.scrollHeight; // the newest move in view
}

// What a screen reader hears: the moves since it last spoke, then whose turn it is.
function announce() {
  const fresh = state.log.slice(0, heard.length).every((line, i) => line === heard[i]) ? state.log.slice(heard.length) : state.log;
  heard = state.log.slice();
  const turn = state.summary
    ? `Hand ${state.summary.hand_index + 1} is over.`
    : state.game_over
      ? "The game is over."
      : state.view.legal_actions.length
        ? `Your turn. ${$("prompt").textContent}.`
        : "";
  $("announce").textContent = [...fresh, turn].filter(Boolean).join(" ");
}

// Focus stays where the next move is made, never on the page body: a card to play or discard, or the row of
// bids and trumps itself, so that a stray Enter never passes or bids (Tab reaches the buttons).
function keepFocus() {
  const target = state.summary
    ? $("continue")
    : state.game_over
      ? $("play-again")
      : document.querySelector("#hand button.card.legal") || (document.querySelector("#moves button.move") ? $("moves") : null);
  if (target) target.focus({ preventScroll: true });
}

// Who took a point, from the person's side: "Us (you)", "Them (left)", "Nobody".
function taker(team, seat) {
  if (team === null) return "Nobody";
  const side = team === (state.seat & 1) ? "Us" : "Them";
  return seat === null ? side : `${side} (${short(seat)})`;
}

function drawSummary() {
  const box = $("summary");
  const r = state.summary;
  box.hidden = !r;
  box.replaceChildren();
  if (!r) return;
  const me = state.seat & 1;
  const title = r.redeal ? `Hand ${r.hand_index + 1}: everyone passed, a redeal` : `Hand ${r.hand_index + 1} is over`;
  box.append(el("h2", { id: "summary-title", text: title }));
  const result = el("table", { class: "figures", id: "hand-result" });
  const row = (head, ...cells) => {
    const tr = result.insertRow();
    tr.append(el("th", { scope: "row", text: head }), ...cells.map((c) => el("td", { text: c })));
  };
  if (!r.redeal) {
    row("Contract", `${Who(r.bidder)} bid ${r.bid} in ${SUIT[r.trump]} ${SUIT_NAME[r.trump]}`, r.made_bid ? "made" : "set");
    for (const p of state.summary_points) {
      const name = p.point[0].toUpperCase() + p.point.slice(1);
      const how = p.point === "game" ? `game-count us ${p.counts[me]}, them ${p.counts[1 - me]}` : p.card ? face(p.card) : "not played";
      row(name, taker(p.team, p.seat), how);
    }
  }
  const before = [r.score_before[me], r.score_before[1 - me]];
  const after = [r.score_after[me], r.score_after[1 - me]];
  row("Score, us first", scores(after), `was ${scores(before)}`);
  box.append(el("div", { class: "figures-wrap" }, result));
  const next = el("button", { type: "button", id: "continue", text: r.game_over ? "See the final score" : "Next hand" });
  next.addEventListener("click", goOn);
  box.append(next);
  if (!r.redeal) {
    const rules = el("details", { id: "point-rules" }, el("summary", { text: "How the points are scored" }));
    rules.append(
      el("ul", {}, ...Object.values(state.point_rules).map((t) => el("li", { text: t })),
        el("li", { text: "The bidder's team must take at least its bid in points, or it is set: its bid is taken off its score." }),
        el("li", { text: "The bidder's discards count towards the bidder's game-count." })),
    );
    box.append(rules);
  }
  const wide = window.matchMedia("(min-width: 761px)").matches; // on a phone the hands wait behind their toggle
  const hands = el("details", { class: "all-hands", id: "all-hands", ...(wide ? { open: "" } : {}) }, el("summary", { text: "The four hands, face up" }));
  r.hands.forEach((cards, seat) => {
    const verb = seat === state.seat ? "were" : "was";
    hands.append(el("div", {}, `${Who(seat)} ${verb} dealt `, ...cards.map((c) => cardEl(c, { small: true }))));
  });
  const k = r.rules.kitty_size; // the kitty is the first k of the cards left undealt (R5); the rest stay out of play
  if (k) {
    const kitty = r.kitty.slice(0, k).map((c) => cardEl(c, { small: true, mark: r.redeal ? "" : "picked" }));
    const line = r.redeal ? ["The kitty, picked up by nobody: ", ...kitty] : [`${Who(r.bidder)} picked up the kitty: `, ...kitty];
    hands.append(el("div", { id: "kitty" }, ...line));
  }
  if (r.discards && r.discards.length) hands.append(el("div", {}, `${Who(r.bidder)} discarded `, ...r.discards.map((c) => cardEl(c, { small: true }))));
  box.append(hands);
  const scoring = [...new Set(Object.values(state.agents))].filter((spec) => /^(neural|dmc|chance|distilled|search)\b/.test(spec));
  if (!r.redeal && scoring.length) {
    const why = el("button", { type: "button", id: "explain", text: "What the agents thought" });
    const out = el("div", { id: "explained" });
    why.addEventListener("click", async () => {
      why.disabled = true;
      try {
        out.append(el("p", { class: "note", text: VALUES_LEGEND }));
        for (const spec of scoring) {
          const seats = Object.entries(state.agents).filter(([, s]) => s === spec).map(([seat]) => Number(seat));
          const answer = await api("POST", "/api/explain", { record: r, agent: spec });
          for (const d of answer.decisions.filter((d) => seats.includes(d.seat))) out.append(valuesEl(d, `${Who(d.seat)} (${playerName(spec)})`));
        }
      } catch (e) {
        showError(e.message);
      }
    });
    box.append(why, out);
  }
}

function drawOver() {
  const box = $("over");
  box.hidden = !state.game_over;
  box.replaceChildren();
  if (!state.game_over) return;
  const me = state.seat & 1;
  const won = state.winner === me;
  box.append(
    el("h2", { id: "over-title", text: won ? "Your team wins" : "The other team wins" }),
    el("p", {
      id: "final",
      text: `Final score, us first: ${scores([state.final_scores[me], state.final_scores[1 - me]])} (to ${state.view.rules.target_score}), after ${state.hands_played} hands.`,
    }),
  );
  const again = el("button", { type: "button", id: "play-again", text: "Play again" });
  again.addEventListener("click", playAgain);
  const fresh = el("button", { type: "button", id: "new-setup", text: "Another table" });
  fresh.addEventListener("click", leave);
  box.append(el("div", { class: "buttons" }, again, fresh));
}

async function run(step) {
  if (busy) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    state = await step();
    showError("");
    draw();
    window.smearState = state; // what the page shows now (the browser tests read it)
  } catch (e) {
    if ((e.status === 409 || e.status === 410) && tableId) {
      // This view was old (another tab moved on, or the move is still being played), or an agent stopped the
      // table (410): show where the table stands.
      try {
        state = await api("GET", `/api/tables/${tableId}`);
        draw();
        window.smearState = state;
      } catch (ignored) {
        /* the error below says enough */
      }
    }
    showError(e.message);
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

const send = (action) => run(() => api("POST", `/api/tables/${tableId}/action`, { action }));
const goOn = () => run(() => api("POST", `/api/tables/${tableId}/continue`));

function remember(id) {
  tableId = id;
  if (id) {
    localStorage.setItem("smear-table", id);
    history.replaceState(null, "", `#table=${id}`);
  } else {
    localStorage.removeItem("smear-table");
    history.replaceState(null, "", "/");
  }
}

function open(body) {
  heard = [];
  return run(async () => {
    const created = await api("POST", "/api/tables", body);
    remember(created.table);
    return created;
  });
}

function playAgain() {
  const opponent = state.agents[String((state.seat + 1) % 4)];
  const rules = Object.fromEntries(Object.entries(state.view.rules).filter(([k]) => k !== "max_hands"));
  open({ seat: state.seat, partner: state.agents[String((state.seat + 2) % 4)], opponents: opponent, rules });
}

async function leave() {
  try {
    await api("DELETE", `/api/tables/${tableId}`);
  } catch (e) {
    /* already gone */
  }
  remember(null);
  state = null;
  setup();
}

async function setup() {
  for (const id of ["table", "side", "summary", "over"]) $(id).hidden = true;
  $("setup").hidden = false;
  const data = await api("GET", "/api/agents");
  $("agent-ids").replaceChildren(...data.agents.map((a) => el("option", { value: a.id })));
  $("agent-help").replaceChildren(...data.agents.map((a) => el("li", {}, el("code", { text: a.usage }), ` \u2014 ${a.summary}`)));
}

$("new-table").addEventListener("submit", (event) => {
  event.preventDefault();
  const f = new FormData(event.target);
  const rules = {
    kitty_size: Number(f.get("kitty_size")),
    stick_the_dealer: f.get("stick_the_dealer") === "on",
    high_low_in_play: f.get("high_low_in_play") === "on",
    win_only_on_made_bid: f.get("win_only_on_made_bid") === "on",
    defender_cap: f.get("defender_cap") ? Number(f.get("defender_cap")) : null,
    target_score: Number(f.get("target_score") || 15),
  };
  open({ seat: Number(f.get("seat")), partner: f.get("partner"), opponents: f.get("opponents"), rules });
});

$("abandon").addEventListener("click", leave);

async function start() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("table");
  const id = fromHash || localStorage.getItem("smear-table");
  if (id) {
    try {
      state = await api("GET", `/api/tables/${id}`);
      remember(id);
      draw();
      window.smearState = state;
      return;
    } catch (e) {
      remember(null);
    }
  }
  setup();
}

start();
