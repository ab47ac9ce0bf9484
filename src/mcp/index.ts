export { ApiClient, ApiError, type KeySource } from './api-client.ts';
export { registerMcp, MCP_PATH, type HostedMcpDeps, type McpSessions } from './hosted.ts';
export { buildMcpServer, registerTools, type ToolContext } from './tools.ts';
