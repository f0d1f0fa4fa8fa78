/**
 * The built-in test-type plugins, one folder per family.
 */
import type { TestPlugin } from '../core/plugin-api.js';
import pagespeed from './pagespeed/index.js';

export const BUILTIN_PLUGINS: readonly TestPlugin[] = [pagespeed];
