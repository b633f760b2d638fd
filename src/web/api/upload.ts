import { ApiError, TAB_ID, url } from './client';

/**
 * Uploads one file as multipart `file` with progress (fetch cannot report upload progress, so this
 * uses XMLHttpRequest), after the text `fields` if any (the server reads them before the file).
 * Resolves with the parsed answer; rejects with the API's error text.
 */
export function uploadFile<T>(
  path: string,
  file: File,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
  fields: Record<string, string> = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url(path));
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-Tab-Id', TAB_ID);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: any = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body as T);
      } else {
        reject(
          new ApiError(
            xhr.status,
            typeof body?.error === 'string' ? body.error : `Upload failed (${xhr.status})`,
            body ?? {},
          ),
        );
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'Upload failed: the server could not be reached'));
    xhr.onabort = () => reject(new ApiError(0, 'Upload cancelled'));
    signal?.addEventListener('abort', () => xhr.abort());
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
