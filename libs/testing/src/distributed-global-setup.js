// jest loads global setup outside its transform: register the TypeScript loader first.
require('../../../tools/register');
module.exports = require('./distributed-setup').default;
