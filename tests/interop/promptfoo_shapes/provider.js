// A local provider (no network): echoes the prompt, fails when the prompt asks it to.
module.exports = class {
  id() { return 'local-echo'; }
  async callApi(prompt) {
    if (prompt.includes('FAIL')) return { error: 'local provider refused' };
    return { output: prompt };
  }
};
