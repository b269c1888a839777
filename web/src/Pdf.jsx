// "Download as PDF": asks the API for a PDF of a space or a change request
// (`GET .../pdf`, which answers with a short-lived download address) and
// opens it.
import { useState } from 'preact/hooks';
import { get } from './api.js';

export function PdfButton({ path, label = 'Download as PDF' }) {
  const [state, setState] = useState({ busy: false, error: null });
  const download = async () => {
    setState({ busy: true, error: null });
    try {
      const { url } = await get(path);
      setState({ busy: false, error: null });
      window.location.assign(url);
    } catch (error) {
      setState({ busy: false, error: error.message });
    }
  };
  return (
    <>
      <button type="button" onClick={download} disabled={state.busy} aria-busy={state.busy ? 'true' : undefined}>
        {state.busy ? 'Making the PDF…' : label}
      </button>
      {state.error && <span class="error" role="alert"> {state.error}</span>}
    </>
  );
}
