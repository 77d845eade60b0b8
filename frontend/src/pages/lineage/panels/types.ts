// What a side panel can ask the explorer to do.

export interface PanelActions {
  expand(id: string): void;
  openAsRoot(id: string): void;
  showField(datasetId: string, field: string): void;
}
