// Card names in a text (10H, QS, RJ, ??) as card chips: rank and suit symbol, red suits red,
// an unknown card's back. Shared by the replay page and the browser's table.
const SUITS = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
const CARD = /(^|[^\w?])((?:10|[A2-9JQK])[SHDC]|RJ|BJ|\?\?)(?!\w)/g;
function escape(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
function cards(text) {
  return escape(text).replace(CARD, (match, before, card) => {
    if (card === "??") return before + '<span class="card back" data-card="??">??</span>';
    const red = card === "RJ" || /[HD]$/.test(card);
    const face = card.length <= 3 && SUITS[card.slice(-1)] && card !== "RJ" && card !== "BJ"
      ? card.slice(0, -1) + SUITS[card.slice(-1)] : card;
    return before + '<span class="card' + (red ? " red" : "") + '" data-card="' + card + '">' + face + "</span>";
  });
}
