// eslint for the review overlay's source modules (the bundle, overlay.js, is generated from them).
import js from "@eslint/js";

export default [
  // vendored as published and pinned by its sha256 (review/bundle.py): not ours to lint
  { ignores: ["src/maple_entrypoints/review/overlay/vendor/"] },
  {
    files: ["src/maple_entrypoints/review/overlay/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    rules: {
      ...js.configs.recommended.rules,
      "no-undef": "off", // tsc checks every name against the DOM's types
      eqeqeq: "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-implicit-globals": "error",
      "no-restricted-syntax": [
        "error",
        { selector: "ExportDefaultDeclaration", message: "Named exports only: the bundler joins modules by name." },
        { selector: "ImportNamespaceSpecifier", message: "Import names: the bundler joins modules by name." },
      ],
    },
  },
];
