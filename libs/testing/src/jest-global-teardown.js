require('../../../tools/register');
module.exports = require('./global-teardown').default;
