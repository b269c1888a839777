// Presence: who else is in a space, and where (the page they read, the
// change request and page they edit), over the space's presence socket
// (awareness only; the server says who each person is).
import { useEffect, useRef, useState } from 'preact/hooks';
import * as Y from 'yjs';
import { WebsocketProvider } from 'y-websocket';
import { people } from './editor/collab.js';

/// The people in `spaceId` other than this browser, each with `where`
/// (`{page, changeRequest, editing}`) as they said; this browser says
/// `where`.
export function usePresence(spaceId, where) {
  const [present, setPresent] = useState([]);
  const provider = useRef(null);
  useEffect(() => {
    if (!spaceId) return undefined;
    const doc = new Y.Doc();
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebsocketProvider(`${scheme}://${window.location.host}/v1/spaces/${spaceId}`, 'presence', doc, { disableBc: true });
    socket.awareness.setLocalStateField('user', {});
    const changed = () => {
      const mine = socket.awareness.clientID;
      setPresent(people(socket.awareness, (client) => client !== mine));
    };
    socket.awareness.on('change', changed);
    provider.current = socket;
    return () => {
      provider.current = null;
      socket.destroy();
      doc.destroy();
    };
  }, [spaceId]);
  const key = JSON.stringify(where ?? {});
  useEffect(() => {
    provider.current?.awareness.setLocalStateField('where', where ?? {});
  }, [spaceId, key]);
  return present;
}

/// What a person is doing, in words.
export function doing(person, titleOf = () => null) {
  const page = person.page ? titleOf(person.page) : null;
  if (person.editing) return `editing${page ? ` ${page}` : ''}${person.changeRequest ? ` in #${person.changeRequest}` : ''}`;
  return page ? `reading ${page}` : 'in this space';
}
