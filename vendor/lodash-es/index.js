// lodash-es as Lighthouse uses it (see package.json): lodash's CommonJS modules, one per function.
// test/architecture.test.ts checks that Lighthouse imports nothing else from lodash-es.
import isEqual from 'lodash/isEqual.js';
import get from 'lodash/get.js';
import set from 'lodash/set.js';

export { get, isEqual, set };
