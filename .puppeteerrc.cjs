// puppeteer is installed only as the peer of @axe-core/puppeteer (a dev dependency of the
// conformance tests). Tests drive Debian's /usr/bin/chromium through puppeteer-core, so the
// browsers puppeteer would download at install time are never used: skip the download.
module.exports = { skipDownload: true, chrome: { skipDownload: true }, 'chrome-headless-shell': { skipDownload: true }, firefox: { skipDownload: true } };
