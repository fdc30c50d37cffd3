/** Report rows show `~` for the home directory; JSON keeps full paths for scripts. */
import { homedir } from 'node:os';

export function shortenHome(text: string, home = homedir()): string {
  if (home === '' || home === '/') return text;
  return text.split(home).join('~');
}
