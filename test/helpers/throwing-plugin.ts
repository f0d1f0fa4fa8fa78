/**
 * A test plugin (type 990) whose run() always throws 'boom': its outcome is an error result, not
 * rated, and it must sink nothing else. Named and described as type 101 is.
 */
import { definePlugin, type TestPlugin } from '../../core/plugin-api.js';

export function throwingPlugin(builtins: readonly TestPlugin[]): TestPlugin {
  const { names, descriptions } = builtins.find((p) => p.meta.id === 101)!.meta;
  return definePlugin({
    meta: { id: 990, names, descriptions, active: true, categories: [], requiredArtifacts: [] },
    run() {
      throw new Error('boom');
    },
  });
}
