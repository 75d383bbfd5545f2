"""The tools, as Python stubs: `await tools.<name>(arg=...)`, or `await tools.<server>.<name>(...)` for a tool named `<server>.<name>`."""

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Never, NotRequired, TypeAlias, TypedDict


ToolCallError = RuntimeError
"""A failed `tools.*` call raises `ToolCallError`, which is `RuntimeError` (the sandbox's exceptions carry no attributes): `str(e)` reads `ToolCallError: <what went wrong> (code <CODE>, tool `<name>`)`. The codes: UNKNOWN_TOOL: no such tool. INVALID_ARGUMENTS: the arguments do not match its schema. DENIED: a policy refused the call. TOOL_ERROR: the tool failed. INVALID_OUTPUT: its result broke its output schema. TOOL_TIMEOUT: the tool ran out of time. ABORTED_BEFORE_DISPATCH / ABORTED: the call was cancelled before / after it started."""


StateError = RuntimeError
"""A failed `state` call raises `StateError`, which is `RuntimeError`: `str(e)` reads `StateError: <what went wrong> (code <CODE>)`. The codes: INVALID_KEY: not a str of 1 … 256 bytes without control characters. INVALID_VALUE: not plain data. QUOTA: past a quota of the value, the keys or the session (nothing was written). EXPIRED_SESSION / UNKNOWN_SESSION: the session is gone. UNAVAILABLE: the store could not be reached."""


class _State:
    async def get(self, key: str) -> Any:
        """The value set under `key`, or None."""

    async def set(self, key: str, value: Any) -> None:
        """Sets `key` to `value` (plain data: dict, list, str, int, float, bool, None)."""

    async def delete(self, key: str) -> bool:
        """Deletes `key`; whether it was set."""

    async def keys(self) -> list[str]:
        """Every key, sorted."""


state: _State
"""Values by key, kept between runs of a session: the result names its session; pass it as `session` to a later run."""


class ToolMatch(TypedDict):
    name: str
    summary: str
    score: float


def search_tools(query: str, *, limit: int = 10) -> list[ToolMatch]:
    """Finds the tools whose names, descriptions and parameters best match `query`, best first; `limit` is 1 … 50, by default 10. Answers at once, without calling a tool."""


def describe_tools(names: str | list[str]) -> str:
    """The declarations of these tools, as in this module, then a `# unknown: …` line naming any not found. Answers at once, without calling a tool."""


class PushFilesFilesItem(TypedDict):
    path: str
    content: str


class CreatePullRequestReviewCommentsItem1(TypedDict):
    # The relative path to the file being commented on
    path: str
    # The position in the diff where you want to add a review comment
    position: float
    # Text of the review comment
    body: str


class CreatePullRequestReviewCommentsItem2(TypedDict):
    # The relative path to the file being commented on
    path: str
    # The line number in the file where you want to add a review comment
    line: float
    # Text of the review comment
    body: str


class _Tools:
    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]:
        """Any tool by its exact name, for names that are not identifiers: `await tools["my-tool"](arg=1)`."""

    async def create_or_update_file(
        self,
        *,
        owner: str,
        repo: str,
        path: str,
        content: str,
        message: str,
        branch: str,
        sha: str | None = None,
    ) -> Any:
        """Create or update a single file in a GitHub repository

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            path: Path where to create/update the file
            content: Content of the file
            message: Commit message
            branch: Branch to create/update the file in
            sha: SHA of the file being replaced (required when updating existing files)
        """

    async def search_repositories(
        self,
        *,
        query: str,
        page: float | None = None,
        perPage: float | None = None,
    ) -> Any:
        """Search for GitHub repositories

        Args:
            query: Search query (see GitHub search syntax)
            page: Page number for pagination (default: 1)
            perPage: Number of results per page (default: 30, max: 100)
        """

    async def create_repository(
        self,
        *,
        name: str,
        description: str | None = None,
        private: bool | None = None,
        autoInit: bool | None = None,
    ) -> Any:
        """Create a new GitHub repository in your account

        Args:
            name: Repository name
            description: Repository description
            private: Whether the repository should be private
            autoInit: Initialize with README.md
        """

    async def get_file_contents(
        self,
        *,
        owner: str,
        repo: str,
        path: str,
        branch: str | None = None,
    ) -> Any:
        """Get the contents of a file or directory from a GitHub repository

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            path: Path to the file or directory
            branch: Branch to get contents from
        """

    async def push_files(
        self,
        *,
        owner: str,
        repo: str,
        branch: str,
        files: list[PushFilesFilesItem],
        message: str,
    ) -> Any:
        """Push multiple files to a GitHub repository in a single commit

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            branch: Branch to push to (e.g., 'main' or 'master')
            files: Array of files to push
            message: Commit message
        """

    async def create_issue(
        self,
        *,
        owner: str,
        repo: str,
        title: str,
        body: str | None = None,
        assignees: list[str] | None = None,
        milestone: float | None = None,
        labels: list[str] | None = None,
    ) -> Any:
        """Create a new issue in a GitHub repository"""

    async def create_pull_request(
        self,
        *,
        owner: str,
        repo: str,
        title: str,
        body: str | None = None,
        head: str,
        base: str,
        draft: bool | None = None,
        maintainer_can_modify: bool | None = None,
    ) -> Any:
        """Create a new pull request in a GitHub repository

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            title: Pull request title
            body: Pull request body/description
            head: The name of the branch where your changes are implemented
            base: The name of the branch you want the changes pulled into
            draft: Whether to create the pull request as a draft
            maintainer_can_modify: Whether maintainers can modify the pull request
        """

    async def fork_repository(
        self,
        *,
        owner: str,
        repo: str,
        organization: str | None = None,
    ) -> Any:
        """Fork a GitHub repository to your account or specified organization

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            organization: Optional: organization to fork to (defaults to your personal account)
        """

    async def create_branch(
        self,
        *,
        owner: str,
        repo: str,
        branch: str,
        from_branch: str | None = None,
    ) -> Any:
        """Create a new branch in a GitHub repository

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            branch: Name for the new branch
            from_branch: Optional: source branch to create from (defaults to the repository's default branch)
        """

    async def list_commits(
        self,
        *,
        owner: str,
        repo: str,
        sha: str | None = None,
        page: float | None = None,
        perPage: float | None = None,
    ) -> Any:
        """Get list of commits of a branch in a GitHub repository"""

    async def list_issues(
        self,
        *,
        owner: str,
        repo: str,
        direction: Literal["asc", "desc"] | None = None,
        labels: list[str] | None = None,
        page: float | None = None,
        per_page: float | None = None,
        since: str | None = None,
        sort: Literal["created", "updated", "comments"] | None = None,
        state: Literal["open", "closed", "all"] | None = None,
    ) -> Any:
        """List issues in a GitHub repository with filtering options"""

    async def update_issue(
        self,
        *,
        owner: str,
        repo: str,
        issue_number: float,
        title: str | None = None,
        body: str | None = None,
        assignees: list[str] | None = None,
        milestone: float | None = None,
        labels: list[str] | None = None,
        state: Literal["open", "closed"] | None = None,
    ) -> Any:
        """Update an existing issue in a GitHub repository"""

    async def add_issue_comment(
        self,
        *,
        owner: str,
        repo: str,
        issue_number: float,
        body: str,
    ) -> Any:
        """Add a comment to an existing issue"""

    async def search_code(
        self,
        *,
        q: str,
        order: Literal["asc", "desc"] | None = None,
        page: float | None = None,
        per_page: float | None = None,
    ) -> Any:
        """Search for code across GitHub repositories

        Args:
            page: (minimum: 1)
            per_page: (minimum: 1; maximum: 100)
        """

    async def search_issues(
        self,
        *,
        q: str,
        order: Literal["asc", "desc"] | None = None,
        page: float | None = None,
        per_page: float | None = None,
        sort: Literal["comments", "reactions", "reactions-+1", "reactions--1", "reactions-smile", "reactions-thinking_face", "reactions-heart", "reactions-tada", "interactions", "created", "updated"] | None = None,
    ) -> Any:
        """Search for issues and pull requests across GitHub repositories

        Args:
            page: (minimum: 1)
            per_page: (minimum: 1; maximum: 100)
        """

    async def search_users(
        self,
        *,
        q: str,
        order: Literal["asc", "desc"] | None = None,
        page: float | None = None,
        per_page: float | None = None,
        sort: Literal["followers", "repositories", "joined"] | None = None,
    ) -> Any:
        """Search for users on GitHub

        Args:
            page: (minimum: 1)
            per_page: (minimum: 1; maximum: 100)
        """

    async def get_issue(self, *, owner: str, repo: str, issue_number: float) -> Any:
        """Get details of a specific issue in a GitHub repository."""

    async def get_pull_request(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
    ) -> Any:
        """Get details of a specific pull request

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
        """

    async def list_pull_requests(
        self,
        *,
        owner: str,
        repo: str,
        state: Literal["open", "closed", "all"] | None = None,
        head: str | None = None,
        base: str | None = None,
        sort: Literal["created", "updated", "popularity", "long-running"] | None = None,
        direction: Literal["asc", "desc"] | None = None,
        per_page: float | None = None,
        page: float | None = None,
    ) -> Any:
        """List and filter repository pull requests

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            state: State of the pull requests to return
            head: Filter by head user or head organization and branch name
            base: Filter by base branch name
            sort: What to sort results by
            direction: The direction of the sort
            per_page: Results per page (max 100)
            page: Page number of the results
        """

    async def create_pull_request_review(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
        commit_id: str | None = None,
        body: str,
        event: Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"],
        comments: list[CreatePullRequestReviewCommentsItem1 | CreatePullRequestReviewCommentsItem2] | None = None,
    ) -> Any:
        """Create a review on a pull request

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
            commit_id: The SHA of the commit that needs a review
            body: The body text of the review
            event: The review action to perform
            comments: Comments to post as part of the review (specify either position or line, not both)
        """

    async def merge_pull_request(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
        commit_title: str | None = None,
        commit_message: str | None = None,
        merge_method: Literal["merge", "squash", "rebase"] | None = None,
    ) -> Any:
        """Merge a pull request

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
            commit_title: Title for the automatic commit message
            commit_message: Extra detail to append to automatic commit message
            merge_method: Merge method to use
        """

    async def get_pull_request_files(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
    ) -> Any:
        """Get the list of files changed in a pull request

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
        """

    async def get_pull_request_status(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
    ) -> Any:
        """Get the combined status of all status checks for a pull request

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
        """

    async def update_pull_request_branch(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
        expected_head_sha: str | None = None,
    ) -> Any:
        """Update a pull request branch with the latest changes from the base branch

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
            expected_head_sha: The expected SHA of the pull request's HEAD ref
        """

    async def get_pull_request_comments(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
    ) -> Any:
        """Get the review comments on a pull request

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
        """

    async def get_pull_request_reviews(
        self,
        *,
        owner: str,
        repo: str,
        pull_number: float,
    ) -> Any:
        """Get the reviews on a pull request

        Args:
            owner: Repository owner (username or organization)
            repo: Repository name
            pull_number: Pull request number
        """


tools: _Tools
"""Every tool, as an async method; optional arguments left as None are not sent."""
