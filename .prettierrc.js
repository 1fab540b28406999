// Prettier for the TypeScript, after microsoft/vscode-black-formatter's .prettierrc.js, with the
// options that match the style the code already had: two spaces, single quotes, trailing commas,
// `x => ...` without parentheses. `npm run format` writes, `npm run format:check` checks.
module.exports = {
  singleQuote: true,
  printWidth: 120,
  tabWidth: 2,
  endOfLine: 'auto',
  trailingComma: 'all',
  arrowParens: 'avoid',
};
