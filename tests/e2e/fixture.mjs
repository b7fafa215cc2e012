// The end-to-end fixture every test file shares: `useSite()` serves the built site and launches
// the browser once for the file (node:test before/after hooks), and opens pages of it with the
// origin guard and the error capture (harness.mjs). Page helpers that more than one file uses
// are here too; each lab's figures are in figures.mjs.
import { after, before } from 'node:test';
import { openPage, startSite } from './harness.mjs';

/**
 * Registers the file's hooks and returns the site: `open(query, options)` as openPage
 * (harness.mjs) does, `attached` the default for its option of that name (the status line
 * belongs to the Signal map, which may be behind another lab's tab); `browser` and `url` for
 * a test that makes its own context. `dir`: serve another folder than the built site.
 */
export function useSite({ dir, attached = false } = {}) {
  let site;
  before(async () => {
    site = await startSite(dir);
  });
  after(async () => {
    await site?.close();
  });
  return {
    get browser() {
      return site.browser;
    },
    get url() {
      return site.url;
    },
    open: (query = '', options = {}) => openPage(site.browser, site.url, query, { attached, ...options }),
  };
}

/** The settings in the page's link (its address bar's query), key by key. */
export const params = (page) => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
