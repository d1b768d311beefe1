require('../../../tools/register');
module.exports = require('./distributed-teardown').default;
