// ESLint for the extension's TypeScript (extension/src, extension/test, extension/webview), after
// microsoft/vscode-black-formatter's config: typescript-eslint's recommended rules plus curly, eqeqeq
// no-throw-literal and max-len. Formatting is Prettier's (.prettierrc.js), not ESLint's. `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'dist-test/**',
      'out/**',
      'bundled/**',
      '.venv/**',
      'tests/**',
      '**/*.d.ts',
    ],
  },
  {
    files: ['extension/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      curly: ['error', 'multi-line'],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-throw-literal': 'error',
      // Prettier keeps code to 120 characters; this keeps comments, strings and generated code there too
      'max-len': ['error', { code: 120, tabWidth: 2 }],
    },
  },
);
