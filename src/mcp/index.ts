export { ApiClient, ApiError, type KeySource } from './api-client.ts';
export { registerMcp, MCP_PATH, type HostedMcpDeps, type McpSessions } from './hosted.ts';
export { buildMcpServer, registerTools, type ToolContext } from './tools.ts';
export { MCP_SESSION_IDLE_MINUTES } from './hosted.ts';
export { runStdio } from './stdio.ts';
