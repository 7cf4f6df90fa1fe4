/**
 * The rule `cairn/layers`: which folders of src a file may import (docs/architecture.md, "Layers").
 *
 * A file's layer is the folder it lives in: `common`, `preload` or `renderer` under src, or one
 * folder of src/main (`main/memory` for anything under src/main/memory/). An import is judged by
 * the layer of the path it resolves to, from the importing file's own place, so the answer is the
 * same at any depth inside a folder. An import into another layer passes only if the importing
 * layer's row lists it or the layer is open to all (src/common); a layer with no row may import
 * only those, so a new folder imports nothing of its siblings until someone writes its row.
 * Imports inside one layer and imports of anything outside src (packages, tests/support) are not
 * this rule's business. Static imports, re-exports, dynamic `import()` and `import x = require()`
 * are all judged: each one ties the modules together the same way.
 */
import * as path from 'node:path';

/** `main/<folder>` for a path under src/main/<folder>, the first folder under src otherwise. */
function layerOf(srcRoot, target) {
  const relative = path.relative(srcRoot, target);
  const parts = relative.split(path.sep);
  if (path.isAbsolute(relative) || parts[0] === '..' || parts.length < 2) return null;
  return parts[0] === 'main' ? `main/${parts[1]}` : parts[0];
}

const shown = (layer) => `src/${layer}`;

export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Each folder of src imports only the folders its row of the layer table lists.' },
    schema: [
      {
        type: 'object',
        properties: {
          layers: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          open: { type: 'array', items: { type: 'string' } },
        },
        required: ['layers'],
        additionalProperties: false,
      },
    ],
    messages: {
      notListed:
        '{{from}} may not import {{to}} (the layers of docs/architecture.md, table in eslint.config.js): it may import only {{allowed}}.',
      noRow:
        '{{from}} has no row in the layer table (eslint.config.js), so it may import only {{allowed}} until one says what more it may.',
    },
  },
  create(context) {
    const { layers, open = [] } = context.options[0];
    const srcRoot = path.join(context.cwd, 'src');
    const from = layerOf(srcRoot, context.filename);
    if (from === null) return {};
    const row = Object.hasOwn(layers, from) ? layers[from] : null;
    const allowed = new Set([from, ...open, ...(row ?? [])]);

    function check(sourceNode) {
      const specifier = sourceNode?.type === 'Literal' ? sourceNode.value : null;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const to = layerOf(srcRoot, path.resolve(path.dirname(context.filename), specifier));
      if (to === null || allowed.has(to)) return;
      const others = [...allowed].filter((layer) => layer !== from).map(shown);
      context.report({
        node: sourceNode,
        messageId: row === null ? 'noRow' : 'notListed',
        data: { from: shown(from), to: shown(to), allowed: others.length > 0 ? others.join(', ') : 'nothing of src' },
      });
    }

    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportEqualsDeclaration: (node) => {
        if (node.moduleReference.type === 'TSExternalModuleReference') check(node.moduleReference.expression);
      },
    };
  },
};

export const layersPlugin = { meta: { name: 'cairn-layers' }, rules: { layers: layersRule } };
