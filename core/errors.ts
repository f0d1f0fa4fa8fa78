/**
 * The one catalogue of coded errors. Every error the service reports to a caller is one of these;
 * the API maps `status` to the HTTP status and `code` + `message` to the body.
 */
export const ErrorCodes = {
  VALIDATION: { status: 400, message: 'The request is not valid' },
  KEY_MISSING: { status: 401, message: 'An api-key is required' },
  KEY_INVALID: { status: 401, message: 'The api-key is not valid' },
  SITE_ID_MISSING: { status: 400, message: 'The site-id header is required' },
  SITE_ID_INVALID: { status: 400, message: 'The site-id must be a positive integer' },
  FORBIDDEN_SITE: { status: 403, message: 'This api-key has no access to the site' },
  ADMIN_REQUIRED: { status: 403, message: 'An admin api-key is required' },
  FORBIDDEN: { status: 403, message: 'Access is forbidden' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  SITE_NOT_FOUND: { status: 404, message: 'The website does not exist' },
  TEST_TYPE_NOT_FOUND: { status: 404, message: 'Unknown test id' },
  RUN_NOT_FOUND: { status: 404, message: 'The run is not one of this website\'s' },
  CHANGES_QUERY_INVALID: { status: 400, message: 'The since, until, from_run and to_run parameters are not valid together' },
  UNSUPPORTED_LANG: { status: 400, message: 'Unsupported lang' },
  TESTNUMS_INVALID: { status: 400, message: 'The testnums header is not valid' },
  URLS_INVALID: { status: 400, message: 'The urls field is not valid' },
  QUOTA_EXCEEDED: { status: 400, message: 'The order does not fit in the remaining credits' },
  PAGES_INVALID: { status: 400, message: 'The pages header (or form field) must be an integer of at least 1' },
  AUDIT_CONTENT_NOT_SUPPORTED: { status: 400, message: 'Content sent along with an audit order is no longer supported: the audit always crawls from the site\'s start page' },
  AUDIT_TOO_SOON: { status: 429, message: 'An audit was already ordered for this site within the last hour' },
  AUDIT_FILE_PARAM_MISSING: { status: 400, message: 'The folder and file query parameters are required' },
  AUDIT_FILE_PARAM_INVALID: { status: 400, message: 'The folder is not an audit folder name' },
  AUDIT_FORMAT_INVALID: { status: 400, message: 'The format must be audit_v2 or csv' },
  AUDIT_FOLDER_FORBIDDEN: { status: 403, message: 'The folder belongs to another site' },
  AUDIT_FILE_NOT_FOUND: { status: 404, message: 'Unknown or nonexistent audit file' },
  TEXT_TOO_LARGE: { status: 413, message: 'The text is too large' },
  REQUEST_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  CONTENT_MISSING: { status: 400, message: 'The content field is required' },
  CONTENT_NO_WORDS: { status: 400, message: 'The text holds no words, so it has no LIX' },
  FILE_NOT_ACCEPTED: { status: 400, message: 'File uploads are not accepted: send plain form fields' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the body as multipart/form-data, application/x-www-form-urlencoded or application/json' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  MALFORMED_REQUEST: { status: 400, message: 'The request is not valid HTTP' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large' },
  URI_TOO_LONG: { status: 414, message: 'A path parameter is too long' },
  SITE_IMPORT_INVALID: { status: 400, message: 'The file is not a site list that can be imported' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'This site has no webhook' },
  WEBHOOK_URL_INVALID: { status: 400, message: 'The webhook address is not valid' },
  TARGET_BLOCKED: { status: 400, message: 'The address is not allowed as a test target' },
  TARGET_UNREACHABLE: { status: 502, message: 'The address could not be reached' },
  // Why a page could not be tested, in the site's answer (core/gather/load-failure.ts): reported as
  // the outcome of every test type, rating none; 502 where one is raised to a caller.
  TARGET_REFUSED: { status: 502, message: 'The website refused the test with a bot check (a firewall or CAPTCHA page)' },
  TARGET_SERVER_ERROR: { status: 502, message: 'The website answered with a server error (5xx) instead of the page' },
  TARGET_ERROR_STATUS: { status: 502, message: 'The page answered with an error status (4xx) instead of the page' },
  TARGET_TLS_FAILED: { status: 502, message: 'The secure connection (TLS) to the website could not be set up' },
  TARGET_CERTIFICATE: { status: 502, message: 'The page could not be loaded because the browser does not accept its certificate' },
  SIGN_IN_REQUIRED: { status: 401, message: 'Sign in to see this page' },
  SIGN_IN_FAILED: { status: 401, message: 'The e-mail address or the password is wrong' },
  ACCOUNT_LOCKED: { status: 429, message: 'Too many failed sign-ins: the account is locked for a while' },
  CSRF_INVALID: { status: 403, message: 'The form has expired or did not come from this site: reload the page and try again' },
  PASSWORD_TOKEN_INVALID: { status: 400, message: 'The link to set a password is unknown, used or expired: ask for a new one' },
  PASSWORD_INVALID: { status: 400, message: 'The new password is not acceptable' },
  PASSWORD_WRONG: { status: 400, message: 'The current password is wrong' },
  // A test type's outcome on a runner that lacks a program the type needs (PluginMeta.requires).
  TEST_TYPE_UNAVAILABLE: { status: 503, message: 'The test type needs a program this runner does not have' },
  CHROMIUM_MISSING: { status: 500, message: 'Chromium is not installed' },
  DB_UNAVAILABLE: { status: 503, message: 'The database does not respond' },
  TIMEOUT: { status: 500, message: 'The work took longer than allowed' },
  INTERNAL: { status: 500, message: 'Internal server error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ErrorCodes;

/**
 * An error from the catalogue, with an optional more specific message and details. An error of
 * the caller's (4xx) carries no stack: it is an answer, not a fault to trace, and capturing the
 * stack (async frames included) was the costliest step of a refused order in the API's profile.
 */
export class WebperfError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    const limit = Error.stackTraceLimit;
    if (ErrorCodes[code].status < 500) Error.stackTraceLimit = 0;
    try {
      super(message ?? ErrorCodes[code].message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'WebperfError';
    this.code = code;
    this.status = ErrorCodes[code].status;
    this.details = details;
  }
}

export function isWebperfError(err: unknown): err is WebperfError {
  return err instanceof WebperfError;
}
