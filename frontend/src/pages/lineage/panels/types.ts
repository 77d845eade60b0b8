// What a side panel can ask the explorer to do.

export interface PanelActions {
  expand(id: string): void;
  openAsRoot(id: string): void;
  showField(datasetId: string, field: string): void;
  /** The action jobs an application job node stands for in the graph (empty for other nodes). */
  actionsOf(id: string): string[];
  /** The application an expanded action job node belongs to, when it can be folded back into it. */
  applicationOf(id: string): string | null;
  expandApplication(id: string): void;
  collapseApplication(id: string): void;
}
