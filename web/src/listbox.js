// The keys of a search box over a list of choices: arrows move the
// highlighted choice, Enter takes it, Escape closes.

export function listKeys(event, { items, index, setIndex, onChoose, onClose }) {
  if (event.key === 'Escape') onClose();
  else if (event.key === 'ArrowDown') {
    event.preventDefault();
    setIndex((i) => Math.min(items.length - 1, i + 1));
  } else if (event.key === 'ArrowUp') {
    event.preventDefault();
    setIndex((i) => Math.max(0, i - 1));
  } else if (event.key === 'Enter' && items[index]) {
    event.preventDefault();
    onChoose(items[index]);
  }
}
