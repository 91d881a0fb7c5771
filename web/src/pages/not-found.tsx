import { Link } from '../router.tsx';
import { useTitle } from '../ui/hooks.ts';

export default function NotFoundPage() {
  useTitle('Not found');
  return (
    <div className="not-found">
      <h1>Page not found</h1>
      <p>Nothing lives at this address.</p>
      <Link to="/keys" className="button button-primary">
        Go to API keys
      </Link>
    </div>
  );
}
