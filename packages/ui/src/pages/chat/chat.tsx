export function Chat() {
  return (
    <main class="page" id="main">
      <h1>Chat</h1>
    </main>
  );
}
