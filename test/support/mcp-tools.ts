/** The tools the MCP server lists, sorted: what an agent's client must find, over HTTP or stdio. */
export const mcpToolNames = ['create_generation', 'get_credit_balance', 'get_generation', 'list_generations'];
