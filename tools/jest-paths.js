// Maps the tsconfig path aliases (@pay/...) for jest, so tests import libraries as apps do.
const { compilerOptions } = require('../tsconfig.base.json');

exports.pathsToModuleNameMapper = () =>
  Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias.replace('/', '\\/')}$`, `<rootDir>/${target}`]),
  );
