// The real Python extension cannot run here (no marketplace, offline): this stands in for it in
// pythonext.js. Its id is ms-python.python; activate() takes as long as $HOME/standin-python.json
// says, then exports the environments API that @vscode/python-extension hands out, answering with
// that file's interpreter. Each activation is logged to $HOME/standin-python.log.
const fs = require('fs');
const path = require('path');

const CONFIG = path.join(process.env.HOME, 'standin-python.json');
const read = () => JSON.parse(fs.readFileSync(CONFIG, 'utf8'));

exports.activate = async () => {
  const { delayMs } = read();
  await new Promise(r => setTimeout(r, delayMs));
  fs.appendFileSync(path.join(process.env.HOME, 'standin-python.log'), `activated ${Date.now()}\n`);
  const listeners = [];
  return {
    ready: Promise.resolve(),
    environments: {
      getActiveEnvironmentPath: () => ({ id: read().python, path: read().python }),
      resolveEnvironment: async env => ({ executable: { uri: { fsPath: typeof env === 'string' ? env : env.path } } }),
      onDidChangeActiveEnvironmentPath: l => { listeners.push(l); return { dispose() {} }; },
      known: [],
    },
  };
};
