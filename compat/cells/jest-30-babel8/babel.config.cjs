// The app's babel config: TypeScript stripped, modules to CommonJS for jest.
module.exports = { presets: [['@babel/preset-env', { targets: { node: 'current' } }], '@babel/preset-typescript'] }
