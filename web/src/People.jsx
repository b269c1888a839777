// Who is here: a coloured initial per person, with their name (and what
// they are doing) for screen readers and on hover.

export function initials(name) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0].toUpperCase())
    .join('');
}

export function People({ people, label, describe = () => null }) {
  if (people.length === 0) return null;
  return (
    <ul class="people" aria-label={label}>
      {people.map((p) => {
        const what = describe(p);
        const name = `${p.name}${what ? `, ${what}` : ''}`;
        return (
          <li key={p.id} title={name} style={{ backgroundColor: p.color }}>
            <span aria-hidden="true">{initials(p.name)}</span>
            <span class="visually-hidden">{name}</span>
          </li>
        );
      })}
    </ul>
  );
}
