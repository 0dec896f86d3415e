// ESLint flat config: typescript-eslint strict + stylistic type-checked rules, plus the module
// boundaries of STYLE.md (siteconfig stays pure; only edges touch the outside world).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noIo = {
  paths: [
    { name: 'node:fs', message: 'siteconfig is pure: read files in src/plugins' },
    { name: 'node:fs/promises', message: 'siteconfig is pure: read files in src/plugins' },
    { name: 'node:net', message: 'siteconfig is pure' },
    { name: 'node:http', message: 'siteconfig is pure' },
    { name: 'node:child_process', message: 'siteconfig is pure' },
    { name: 'undici', message: 'siteconfig is pure' },
    // Its types describe the core objects the compiler emits; its code talks to clusters.
    { name: '@kubernetes/client-node', message: 'siteconfig is pure', allowTypeImports: true },
  ],
  patterns: [
    { group: ['**/plugins/**', '**/bmac/**'], message: 'siteconfig must not depend on its edges' },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'build/',
      'dist/',
      'coverage/',
      'node_modules/',
      'src/imports/',
      '.cache/',
      'src/**/*.generated.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: false }],
      'no-console': 'error',
      // With noUncheckedIndexedAccess, `xs[i]!` after a bounds check is the idiomatic form.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['src/siteconfig/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', noIo],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'siteconfig and shared are pure: no env, argv or stdio' },
      ],
    },
  },
  {
    // The fleet status model is pure (issue 13): the demo and the dashboard feed it objects.
    files: ['src/fleet/**/*.ts'],
    ignores: ['src/fleet/fleet-watcher.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: noIo.paths.map((p) => ({ ...p, message: 'src/fleet is pure: no I/O' })),
          patterns: [
            {
              group: ['**/plugins/**', '**/bmac/runtime/**', '**/kube/client-node*'],
              message: 'src/fleet is pure: feed it objects from an edge',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'src/fleet is pure' }],
    },
  },
  {
    // One adapter talks to the Kubernetes API; everything else uses its KubeClient port.
    files: ['src/**/*.ts'],
    // src/sim is the far side of the wire (simulated hosts calling the image server and the
    // agent API), so it speaks HTTP with undici as the BMC client does.
    ignores: [
      'src/kube/**',
      'src/bmac/kube/**',
      'src/siteconfig/**',
      'src/shared/**',
      'src/sim/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@kubernetes/client-node',
              message:
                'only src/kube (and src/bmac/kube) import client-node; use the KubeClient port',
            },
            {
              name: 'undici',
              message: 'only src/bmac/redfish talks to BMCs; use the RedfishClient port',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/sim/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@kubernetes/client-node',
              message:
                'only src/kube (and src/bmac/kube) import client-node; use the KubeClient port',
            },
          ],
        },
      ],
    },
  },
  {
    // The Redfish adapter talks to BMCs and depends on src/shared only (STYLE.md boundaries).
    files: ['src/bmac/redfish/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@kubernetes/client-node', message: 'src/bmac/redfish imports shared only' },
          ],
          patterns: [
            {
              group: [
                '**/siteconfig/**',
                '**/plugins/**',
                '**/kube/**',
                '**/bmac/*/**',
                '!**/bmac/redfish/**',
              ],
              message: 'src/bmac/redfish may import src/shared only',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      parserOptions: { projectService: false },
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
        Buffer: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
    rules: { 'no-console': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
);
