// What every official-client script shares: the client for the server under
// test (QUIRE_URL, QUIRE_TOKEN) and named steps that say which one failed.

import assert from 'node:assert/strict';
import { GitBookAPI } from '@gitbook/api';

/// The official client authenticated with QUIRE_TOKEN (or `token`).
export function client(token = process.env.QUIRE_TOKEN) {
    const url = process.env.QUIRE_URL;
    assert.ok(url && token, 'QUIRE_URL and QUIRE_TOKEN are required');
    return new GitBookAPI({ endpoint: url, authToken: token });
}

/// Runs one named step, printing `ok` or `FAIL` with its name.
export async function step(name, run) {
    try {
        await run();
        console.log(`ok   ${name}`);
    } catch (error) {
        console.error(`FAIL ${name}`);
        throw error;
    }
}
